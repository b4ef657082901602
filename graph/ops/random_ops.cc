// Random ops: RandomUniform, RandomStandardNormal, TruncatedNormal,
// RandomUniformInt, RandomShuffle, Multinomial, the stateless forms (seed
// tensor, and the V2 forms with key/counter/alg) and the ops that derive a
// key and counter from a seed, with their shape functions. Signatures follow
// TensorFlow 2.21's random_ops.cc, stateless_random_ops.cc and
// stateless_random_ops_v2.cc.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"
#include "graph/ops/random_shape.h"

namespace dfx {
namespace {

constexpr char kFloatDtype[] = "dtype: {half, bfloat16, float, double}";
constexpr char kFloatDtypeDefault[] =
    "dtype: {half, bfloat16, float, double} = DT_FLOAT";
constexpr char kFullIntDtype[] =
    "dtype: {int32, int64, uint32, uint64} = DT_UINT64";
constexpr char kMultinomialT[] = "T: realnumbertype";

// The V2 ops' key is a vector of RNG_KEY_SIZE (1) uint64 words.
constexpr int64_t kKeySize = 1;

// Output 0 takes the shape named by the 1-D integer tensor at input `index`:
// its values when it is a constant, else as many unknown dims as it has
// elements when that is known.
absl::Status ShapeFromShapeInput(InferenceContext* c, int index,
                                 PartialShape* out) {
  const PartialShape& shape_shape = c->input(index);
  if (shape_shape.RankKnown() && shape_shape.rank() != 1) {
    return c->Error(absl::StrCat("the shape input must be a vector, got shape ",
                                 shape_shape.DebugString()));
  }
  std::vector<int64_t> dims;
  if (ConstantInts(c->input_tensor(index), &dims)) {
    for (int64_t& d : dims) {
      // -1 is TensorFlow's "unknown" at graph time; the kernel rejects it
      // at run time.
      if (d < -1) {
        return c->Error(
            absl::StrCat("dimension ", d, " in the shape input must be >= -1"));
      }
    }
    *out = PartialShape::Known(std::move(dims));
  } else if (shape_shape.RankKnown() && shape_shape.dims[0] >= 0) {
    *out = UnknownDims(static_cast<int>(shape_shape.dims[0]));
  } else {
    *out = PartialShape::Unknown();
  }
  return absl::OkStatus();
}

// InvalidArgument when `shape` is known to be something other than a vector
// of `size` elements (size -1: any length).
absl::Status WithVector(InferenceContext* c, const PartialShape& shape,
                        int64_t size, const char* what) {
  DFX_RETURN_IF_ERROR(c->WithRank(shape, 1));
  if (size >= 0 && shape.RankKnown() && shape.dims[0] >= 0 &&
      shape.dims[0] != size) {
    return c->Error(absl::StrCat(what, " must have shape [", size, "], not ",
                                 shape.DebugString()));
  }
  return absl::OkStatus();
}

// RandomUniformInt: scalar minval (input 1) and maxval (input 2).
absl::Status RandomUniformIntShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  return RandomShapeFn(c);
}

// The V1 stateless ops: shape (input 0), seed of shape [2] (input 1), then
// `num_scalars` scalar inputs (minval, maxval).
absl::Status StatelessShapeFn(InferenceContext* c, int num_scalars) {
  DFX_RETURN_IF_ERROR(WithVector(c, c->input(1), 2, "seed"));
  for (int i = 0; i < num_scalars; ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(2 + i), 0));
  }
  return RandomShapeFn(c);
}

// The V2 stateless ops: shape, key [1], counter (a vector), alg (a scalar),
// then `num_scalars` scalar inputs.
absl::Status StatelessV2ShapeFn(InferenceContext* c, int num_scalars) {
  DFX_RETURN_IF_ERROR(WithVector(c, c->input(1), kKeySize, "key"));
  DFX_RETURN_IF_ERROR(WithVector(c, c->input(2), -1, "counter"));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
  for (int i = 0; i < num_scalars; ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(4 + i), 0));
  }
  return RandomShapeFn(c);
}

// Multinomial and StatelessMultinomial: logits [batch, classes] and a scalar
// num_samples give [batch, num_samples].
absl::Status MultinomialShapeFn(InferenceContext* c) {
  const PartialShape& logits = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(logits, 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  if (c->num_inputs() > 2) {
    DFX_RETURN_IF_ERROR(WithVector(c, c->input(2), 2, "seed"));
  }
  int64_t num_samples = -1;
  std::vector<int64_t> value;
  if (ConstantInts(c->input_tensor(1), &value) && value.size() == 1) {
    if (value[0] < 0) {
      return c->Error(
          absl::StrCat("num_samples should be non-negative, got ", value[0]));
    }
    num_samples = value[0];
  }
  const int64_t batch = logits.RankKnown() ? logits.dims[0] : -1;
  c->set_output(0, PartialShape::Known({batch, num_samples}));
  return absl::OkStatus();
}

// StatelessRandomGetKeyCounter(Alg): seed [2] -> key [1], counter [2]
// (and alg []).
absl::Status GetKeyCounterShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(WithVector(c, c->input(0), 2, "seed"));
  c->set_output(0, PartialShape::Known({kKeySize}));
  c->set_output(1, PartialShape::Known({2}));
  if (c->num_outputs() > 2) c->set_output(2, PartialShape::Scalar());
  return absl::OkStatus();
}

// The stateful ops whose output shape is the shape input: RandomUniform,
// RandomStandardNormal, TruncatedNormal.
OpDefBuilder StatefulFloatOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("shape: T")
      .Output("output: dtype")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Attr(kFloatDtype)
      .Attr("T: {int32, int64}")
      .SetIsStateful()
      .SetShapeFn(RandomShapeFn);
  return b;
}

OpDefBuilder StatelessFloatOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("shape: T")
      .Input("seed: Tseed")
      .Output("output: dtype")
      .Attr(kFloatDtypeDefault)
      .Attr("T: {int32, int64} = DT_INT32")
      .Attr("Tseed: {int32, int64} = DT_INT64")
      .SetShapeFn([](InferenceContext* c) { return StatelessShapeFn(c, 0); });
  return b;
}

OpDefBuilder StatelessV2FloatOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("shape: Tshape")
      .Input("key: uint64")
      .Input("counter: uint64")
      .Input("alg: int32")
      .Output("output: dtype")
      .Attr(kFloatDtypeDefault)
      .Attr("Tshape: {int32, int64} = DT_INT32")
      .SetShapeFn([](InferenceContext* c) { return StatelessV2ShapeFn(c, 0); });
  return b;
}

}  // namespace

absl::Status RandomShapeFn(InferenceContext* c) {
  PartialShape out;
  DFX_RETURN_IF_ERROR(ShapeFromShapeInput(c, 0, &out));
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status RegisterRandomOps(OpRegistry* r) {
  // Stateful ops: (seed, seed2) attrs seed a generator the kernel keeps.
  for (const char* name :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    DFX_RETURN_IF_ERROR(r->Register(StatefulFloatOp(name)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RandomUniformInt")
                                      .Input("shape: T")
                                      .Input("minval: Tout")
                                      .Input("maxval: Tout")
                                      .Output("output: Tout")
                                      .Attr("seed: int = 0")
                                      .Attr("seed2: int = 0")
                                      .Attr("Tout: {int32, int64}")
                                      .Attr("T: {int32, int64}")
                                      .SetIsStateful()
                                      .SetShapeFn(RandomUniformIntShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RandomShuffle")
                                      .Input("value: T")
                                      .Output("output: T")
                                      .Attr("seed: int = 0")
                                      .Attr("seed2: int = 0")
                                      .Attr("T: type")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Multinomial")
                      .Input("logits: T")
                      .Input("num_samples: int32")
                      .Output("output: output_dtype")
                      .Attr("seed: int = 0")
                      .Attr("seed2: int = 0")
                      .Attr(kMultinomialT)
                      .Attr("output_dtype: {int32, int64} = DT_INT64")
                      .SetIsStateful()
                      .SetShapeFn(MultinomialShapeFn)));
  // RandomGamma and RandomPoissonV2: `shape` followed by the parameter's
  // shape.
  auto per_parameter_shape = [](InferenceContext* c) {
    PartialShape out;
    DFX_RETURN_IF_ERROR(ShapeFromShapeInput(c, 0, &out));
    const PartialShape& param = c->input(1);
    if (!out.RankKnown() || !param.RankKnown()) {
      c->set_output(0, PartialShape::Unknown());
      return absl::OkStatus();
    }
    out.dims.insert(out.dims.end(), param.dims.begin(), param.dims.end());
    c->set_output(0, std::move(out));
    return absl::OkStatus();
  };
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RandomGamma")
                                      .Input("shape: S")
                                      .Input("alpha: T")
                                      .Output("output: T")
                                      .Attr("seed: int = 0")
                                      .Attr("seed2: int = 0")
                                      .Attr("S: {int32, int64}")
                                      .Attr("T: {half, float, double}")
                                      .SetIsStateful()
                                      .SetShapeFn(per_parameter_shape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("RandomPoissonV2")
          .Input("shape: S")
          .Input("rate: R")
          .Output("output: dtype")
          .Attr("seed: int = 0")
          .Attr("seed2: int = 0")
          .Attr("S: {int32, int64}")
          .Attr("R: {half, float, double, int32, int64} = DT_DOUBLE")
          .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
          .SetIsStateful()
          .SetShapeFn(per_parameter_shape)));  // The stateless gamma and Poisson samplers: output `shape`.
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("StatelessRandomGammaV2")
          .Input("shape: T")
          .Input("seed: Tseed")
          .Input("alpha: dtype")
          .Output("output: dtype")
          .Attr("dtype: {half, float, double}")
          .Attr("T: {int32, int64}")
          .Attr("Tseed: {int32, int64} = DT_INT64")
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(WithVector(c, c->input(1), 2, "seed"));
            return RandomShapeFn(c);
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("StatelessRandomGammaV3")
          .Input("shape: shape_dtype")
          .Input("key: uint64")
          .Input("counter: uint64")
          .Input("alg: int32")
          .Input("alpha: dtype")
          .Output("output: dtype")
          .Attr("dtype: {half, float, double}")
          .Attr("shape_dtype: {int32, int64} = DT_INT32")
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(WithVector(c, c->input(1), kKeySize, "key"));
            DFX_RETURN_IF_ERROR(WithVector(c, c->input(2), -1, "counter"));
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
            return RandomShapeFn(c);
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("StatelessRandomPoisson")
          .Input("shape: T")
          .Input("seed: Tseed")
          .Input("lam: Rtype")
          .Output("output: dtype")
          .Attr("Rtype: {half, float, double, int32, int64}")
          .Attr("dtype: {half, float, double, int32, int64}")
          .Attr("T: {int32, int64}")
          .Attr("Tseed: {int32, int64} = DT_INT64")
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(WithVector(c, c->input(1), 2, "seed"));
            return RandomShapeFn(c);
          })));

  // Stateless ops with a seed tensor of shape [2].
  for (const char* name : {"StatelessRandomUniform", "StatelessRandomNormal",
                           "StatelessTruncatedNormal"}) {
    DFX_RETURN_IF_ERROR(r->Register(StatelessFloatOp(name)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StatelessRandomUniformInt")
                                      .Input("shape: T")
                                      .Input("seed: Tseed")
                                      .Input("minval: dtype")
                                      .Input("maxval: dtype")
                                      .Output("output: dtype")
                                      .Attr("dtype: {int32, int64}")
                                      .Attr("T: {int32, int64}")
                                      .Attr("Tseed: {int32, int64} = DT_INT64")
                                      .SetShapeFn([](InferenceContext* c) {
                                        return StatelessShapeFn(c, 2);
                                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("StatelessRandomUniformFullInt")
                      .Input("shape: T")
                      .Input("seed: Tseed")
                      .Output("output: dtype")
                      .Attr(kFullIntDtype)
                      .Attr("T: {int32, int64} = DT_INT32")
                      .Attr("Tseed: {int32, int64, uint32, uint64} = DT_INT64")
                      .SetShapeFn([](InferenceContext* c) {
                        return StatelessShapeFn(c, 0);
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("StatelessMultinomial")
                      .Input("logits: T")
                      .Input("num_samples: int32")
                      .Input("seed: Tseed")
                      .Output("output: output_dtype")
                      .Attr(kMultinomialT)
                      .Attr("Tseed: {int32, int64} = DT_INT64")
                      .Attr("output_dtype: {int32, int64} = DT_INT64")
                      .SetShapeFn(MultinomialShapeFn)));

  // V2 stateless ops: a key, a counter and an algorithm id as inputs.
  for (const char* name :
       {"StatelessRandomUniformV2", "StatelessRandomNormalV2",
        "StatelessTruncatedNormalV2"}) {
    DFX_RETURN_IF_ERROR(r->Register(StatelessV2FloatOp(name)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("StatelessRandomUniformIntV2")
                      .Input("shape: Tshape")
                      .Input("key: uint64")
                      .Input("counter: uint64")
                      .Input("alg: int32")
                      .Input("minval: dtype")
                      .Input("maxval: dtype")
                      .Output("output: dtype")
                      .Attr("dtype: {int32, int64, uint32, uint64}")
                      .Attr("Tshape: {int32, int64} = DT_INT32")
                      .SetShapeFn([](InferenceContext* c) {
                        return StatelessV2ShapeFn(c, 2);
                      })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("StatelessRandomUniformFullIntV2")
                      .Input("shape: Tshape")
                      .Input("key: uint64")
                      .Input("counter: uint64")
                      .Input("alg: int32")
                      .Output("output: dtype")
                      .Attr(kFullIntDtype)
                      .Attr("Tshape: {int32, int64} = DT_INT32")
                      .SetShapeFn([](InferenceContext* c) {
                        return StatelessV2ShapeFn(c, 0);
                      })));

  // Key, counter and algorithm from a seed.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StatelessRandomGetKeyCounter")
                                      .Input("seed: Tseed")
                                      .Output("key: uint64")
                                      .Output("counter: uint64")
                                      .Attr("Tseed: {int32, int64} = DT_INT64")
                                      .SetShapeFn(GetKeyCounterShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("StatelessRandomGetKeyCounterAlg")
                      .Input("seed: Tseed")
                      .Output("key: uint64")
                      .Output("counter: uint64")
                      .Output("alg: int32")
                      .Attr("Tseed: {int32, int64} = DT_INT64")
                      .SetShapeFn(GetKeyCounterShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StatelessRandomGetAlg")
                                      .Output("alg: int32")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  return absl::OkStatus();
}

}  // namespace dfx

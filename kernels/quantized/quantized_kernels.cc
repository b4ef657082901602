// The quantized family's element-wise and range kernels: Requantize,
// RequantizationRange, QuantizeDownAndShrinkRange, QuantizedRelu/Relu6,
// QuantizedBiasAdd, QuantizedAdd, QuantizedMul, QuantizedConcat,
// QuantizedReshape and QuantizedBatchNormWithGlobalNormalization, for the
// dtypes TensorFlow 2.21's CPU kernels serve and with their arithmetic
// (kernels/quantized/quantized_math.h), checks and messages.
// RegisterQuantizedKernels also registers the products and pools of
// quantized_conv_ops.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/quantized/quantized_kernels.h"
#include "kernels/quantized/quantized_math.h"
#include "runtime/op_kernel.h"
#include "runtime/quantized_types.h"

namespace dfx {
namespace quantized {

absl::Status RequireRank0(const Tensor& t, absl::string_view name) {
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("`", name, "` must be rank 0 but is rank ", t.dims()));
  }
  return absl::OkStatus();
}

void SetRange(OpKernelContext* ctx, int first, float min, float max) {
  Tensor* t = nullptr;
  DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(first, TensorShape(), &t));
  t->data<float>()[0] = min;
  DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(first + 1, TensorShape(), &t));
  t->data<float>()[0] = max;
}

}  // namespace quantized

namespace {

using quantized::FloatToLevel;
using quantized::LevelToFloat;
using quantized::RequireRank0;
using quantized::SetRange;

float Scalar(const Tensor& t) { return t.data<float>()[0]; }

// Requantize: levels of In in [input_min, input_max] to levels of Out in
// the requested range.
template <typename In, typename Out>
class RequantizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    static constexpr const char* kNames[] = {"input_min", "input_max",
                                             "requested_output_min",
                                             "requested_output_max"};
    for (int i = 1; i <= 4; ++i) {
      DFX_OP_REQUIRES_OK(ctx, RequireRank0(ctx->input(i), kNames[i - 1]));
    }
    const float input_min = Scalar(ctx->input(1));
    const float input_max = Scalar(ctx->input(2));
    const float out_min = Scalar(ctx->input(3));
    const float out_max = Scalar(ctx->input(4));
    DFX_OP_REQUIRES(
        ctx, out_min <= 0.0f,
        absl::InvalidArgumentError(absl::StrCat(
            "requested_output_min must be <= 0, but got ", out_min)));
    DFX_OP_REQUIRES(
        ctx, out_max >= out_min,
        absl::InvalidArgumentError(absl::StrCat(
            "requested_output_max must be >= requested_output_min, but got ",
            out_max, " and ", out_min)));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    quantized::RequantizeTensor(input.data<In>(), input.NumElements(),
                                input_min, input_max, out_min, out_max,
                                output->data<Out>());
    SetRange(ctx, 1, out_min, out_max);
  }
};

// The range the levels of `input` actually use, as floats, with the
// minimum no higher than zero (RequantizationRange and
// QuantizeDownAndShrinkRange). An empty input gives [highest, lowest]
// levels, as TensorFlow's scan does.
template <typename In>
void UsedRange(const Tensor& input, float input_min, float input_max,
               float* used_min, float* used_max) {
  using L = quantized::Levels<In>;
  int64_t lo = L::kHighest;
  int64_t hi = L::kLowest;
  const In* data = input.data<In>();
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    lo = std::min<int64_t>(lo, data[i].value);
    hi = std::max<int64_t>(hi, data[i].value);
  }
  *used_min = std::min(0.0f, LevelToFloat<In>(lo, input_min, input_max));
  *used_max = LevelToFloat<In>(hi, input_min, input_max);
}

template <typename In>
class RequantizationRangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES(ctx, ctx->input(1).NumElements() > 0,
                    absl::InvalidArgumentError("Input min must not be empty."));
    DFX_OP_REQUIRES(ctx, ctx->input(2).NumElements() > 0,
                    absl::InvalidArgumentError("Input max must not be empty."));
    float used_min, used_max;
    UsedRange<In>(ctx->input(0), Scalar(ctx->input(1)), Scalar(ctx->input(2)),
                  &used_min, &used_max);
    SetRange(ctx, 0, used_min, used_max);
  }
};

template <typename In, typename Out>
class QuantizeDownAndShrinkRangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, RequireRank0(ctx->input(1), "input_min"));
    DFX_OP_REQUIRES_OK(ctx, RequireRank0(ctx->input(2), "input_max"));
    const float input_min = Scalar(ctx->input(1));
    const float input_max = Scalar(ctx->input(2));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    float used_min, used_max;
    UsedRange<In>(input, input_min, input_max, &used_min, &used_max);
    quantized::RequantizeTensor(input.data<In>(), input.NumElements(),
                                input_min, input_max, used_min, used_max,
                                output->data<Out>());
    SetRange(ctx, 1, used_min, used_max);
  }
};

// QuantizedRelu (ceiling < 0: none) and QuantizedRelu6 (ceiling 6): levels
// clamped to those of 0 and the ceiling; the range passes through.
template <typename T>
class QuantizedReluOp : public OpKernel {
 public:
  QuantizedReluOp(OpKernelConstruction* ctx, float ceiling)
      : OpKernel(ctx), ceiling_(ceiling) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, RequireRank0(ctx->input(1), "min_input"));
    DFX_OP_REQUIRES_OK(ctx, RequireRank0(ctx->input(2), "max_input"));
    const float min_input = Scalar(ctx->input(1));
    const float max_input = Scalar(ctx->input(2));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const int64_t floor = FloatToLevel<T>(0.0f, min_input, max_input).value;
    const int64_t top =
        ceiling_ < 0 ? quantized::Levels<T>::kHighest
                     : FloatToLevel<T>(ceiling_, min_input, max_input).value;
    const T* in = input.data<T>();
    T* out = output->data<T>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      int64_t v = std::max<int64_t>(in[i].value, floor);
      if (ceiling_ >= 0) v = std::min(v, top);
      out[i] = T{v};
    }
    SetRange(ctx, 1, min_input, max_input);
  }

 private:
  const float ceiling_;
};

// QuantizedBiasAdd (QuantizedAddUsingEigen): both operands requantized
// into a shared symmetric range in float, summed with the level of zero.
template <typename T>
class QuantizedBiasAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    static constexpr const char* kNames[] = {"min_input", "max_input",
                                             "min_bias", "max_bias"};
    for (int i = 2; i <= 5; ++i) {
      DFX_OP_REQUIRES_OK(ctx, RequireRank0(ctx->input(i), kNames[i - 2]));
    }
    const float input_min = Scalar(ctx->input(2));
    const float input_max = Scalar(ctx->input(3));
    const float bias_min = Scalar(ctx->input(4));
    const float bias_max = Scalar(ctx->input(5));
    DFX_OP_REQUIRES(ctx, input.dims() >= 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("Input tensor must be at least 2D: ",
                                     input.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, bias.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Biases must be 1D: ", bias.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, bias.dim_size(0) == input.dim_size(input.dims() - 1),
        absl::InvalidArgumentError(absl::StrCat(
            "Must provide as many biases as the last dimension of the input "
            "tensor: ",
            bias.shape().DebugString(), " vs. ", input.shape().DebugString())));
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    float total_min, total_max;
    quantized::BiasAddRange(input_min, input_max, bias_min, bias_max,
                            &total_min, &total_max);
    const int32_t zero = FloatToLevel<qint32>(0.0f, total_min, total_max).value;
    const quantized::TensorDequantizer<T> input_q2f(input_min, input_max);
    const quantized::TensorDequantizer<T> bias_q2f(bias_min, bias_max);
    const quantized::TensorQuantizer<qint32> f2q(total_min, total_max);
    const int64_t n = input.NumElements();
    const int64_t nb = bias.NumElements();
    const T* in = input.data<T>();
    const T* b = bias.data<T>();
    qint32* out = output->data<qint32>();
    if (nb > 0) {
      std::vector<int32_t> bias_total(nb);
      for (int64_t j = 0; j < nb; ++j) {
        bias_total[j] = f2q(bias_q2f(b[j].value)).value;
      }
      for (int64_t i = 0; i < n; ++i) {
        const int64_t sum =
            static_cast<int64_t>(f2q(input_q2f(in[i].value)).value) +
            bias_total[i % nb] + zero;
        out[i] = qint32{quantized::Wrap32(sum)};
      }
    }
    SetRange(ctx, 1, total_min, total_max);
  }
};

// The number of dims TensorFlow's BCast reduces two shapes to: runs of dims
// with the same broadcast pattern merge, dims of 1 in both vanish.
// Returns -1 when the shapes do not broadcast.
int BroadcastGroups(const TensorShape& x, const TensorShape& y) {
  const int rank = std::max(x.dims(), y.dims());
  int groups = 0;
  int prev = -1;
  for (int i = 0; i < rank; ++i) {
    const int xi = i - (rank - x.dims());
    const int yi = i - (rank - y.dims());
    const int64_t xd = xi >= 0 ? x.dim_size(xi) : 1;
    const int64_t yd = yi >= 0 ? y.dim_size(yi) : 1;
    if (xd == 1 && yd == 1) continue;
    int state;
    if (xd == yd) {
      state = 0;
    } else if (xd == 1) {
      state = 1;
    } else if (yd == 1) {
      state = 2;
    } else {
      return -1;
    }
    if (state != prev) ++groups;
    prev = state;
  }
  return std::max(groups, 1);
}

absl::StatusOr<TensorShape> BroadcastShape(const TensorShape& x,
                                           const TensorShape& y) {
  const int rank = std::max(x.dims(), y.dims());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int xi = i - (rank - x.dims());
    const int yi = i - (rank - y.dims());
    const int64_t xd = xi >= 0 ? x.dim_size(xi) : 1;
    const int64_t yd = yi >= 0 ? y.dim_size(yi) : 1;
    dims[i] = xd == 1 ? yd : xd;
  }
  return TensorShape::Build(dims);
}

// How QuantizedAdd and QuantizedMul walk their operands, as TensorFlow's
// kernels do: a scalar against anything, two tensors of one shape, or (for
// a two-dim broadcast) the smaller operand repeated along the larger one's
// flat elements -- not the broadcast a float op would make when the
// smaller operand's dims are not trailing.
struct BinaryPlan {
  enum Kind { kScalarX, kScalarY, kVector, kRepeat } kind = kVector;
  bool x_repeats = false;  // kRepeat: x is the smaller operand
};

absl::Status PlanBinary(const Tensor& x, const Tensor& y, BinaryPlan* plan,
                        TensorShape* out_shape) {
  const int groups = BroadcastGroups(x.shape(), y.shape());
  if (groups < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Incompatible shapes: ", x.shape().DebugString(), " vs. ",
                     y.shape().DebugString()));
  }
  DFX_ASSIGN_OR_RETURN(*out_shape, BroadcastShape(x.shape(), y.shape()));
  if (groups <= 1) {
    if (x.NumElements() == 1) {
      plan->kind = BinaryPlan::kScalarX;
    } else if (y.NumElements() == 1) {
      plan->kind = BinaryPlan::kScalarY;
    } else {
      plan->kind = BinaryPlan::kVector;
    }
  } else if (groups == 2) {
    plan->kind = BinaryPlan::kRepeat;
    plan->x_repeats = x.NumElements() < y.NumElements();
  } else {
    return absl::UnimplementedError(
        absl::StrCat("Broadcast between ", x.shape().DebugString(), " and ",
                     y.shape().DebugString(), " is not supported yet."));
  }
  return absl::OkStatus();
}

// Runs `fn(out_index, x_index, y_index)` over the elements TensorFlow's
// kernels write for `plan` (a kRepeat with the larger operand smaller than
// the output leaves the rest of the output zero; TensorFlow leaves it
// unwritten).
template <typename Fn>
void ForEachPair(const BinaryPlan& plan, int64_t nx, int64_t ny, Fn&& fn) {
  switch (plan.kind) {
    case BinaryPlan::kScalarX:
      for (int64_t i = 0; i < ny; ++i) fn(i, 0, i);
      break;
    case BinaryPlan::kScalarY:
      for (int64_t i = 0; i < nx; ++i) fn(i, i, 0);
      break;
    case BinaryPlan::kVector:
      for (int64_t i = 0; i < nx; ++i) fn(i, i, i);
      break;
    case BinaryPlan::kRepeat:
      if (plan.x_repeats) {
        for (int64_t i = 0; i < ny; ++i) fn(i, i % nx, i);
      } else {
        for (int64_t i = 0; i < nx; ++i) fn(i, i, i % ny);
      }
      break;
  }
}

// The four range inputs of QuantizedAdd/QuantizedMul.
struct BinaryRanges {
  float min_x, max_x, min_y, max_y;
};

absl::Status ReadBinaryRanges(OpKernelContext* ctx, bool add, BinaryRanges* r) {
  static constexpr const char* kNames[] = {"min_x", "max_x", "min_y", "max_y"};
  for (int i = 2; i <= 5; ++i) {
    if (ctx->input(i).dims() != 0) {
      return absl::InvalidArgumentError(
          add ? absl::StrCat("`", kNames[i - 2],
                             "` must be rank 0 but is rank ",
                             ctx->input(i).dims())
              : absl::StrCat(kNames[i - 2], " must be a scalar"));
    }
  }
  r->min_x = Scalar(ctx->input(2));
  r->max_x = Scalar(ctx->input(3));
  r->min_y = Scalar(ctx->input(4));
  r->max_y = Scalar(ctx->input(5));
  return absl::OkStatus();
}

// QuantizedAdd (quint8 + quint8 -> qint32): each operand moved into a
// symmetric range 2^14 times the widest input magnitude, by its levels 0
// and 1 in that range (the scalar operand exactly), then summed.
class QuantizedAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BinaryRanges r;
    DFX_OP_REQUIRES_OK(ctx, ReadBinaryRanges(ctx, /*add=*/true, &r));
    BinaryPlan plan;
    TensorShape out_shape;
    const absl::Status planned = PlanBinary(x, y, &plan, &out_shape);
    if (!planned.ok() && planned.code() == absl::StatusCode::kInvalidArgument) {
      ctx->SetStatus(planned);
      return;
    }
    Tensor* z = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &z));
    DFX_OP_REQUIRES(
        ctx, r.max_x > r.min_x,
        absl::InvalidArgumentError("max_x must be larger than min_x."));
    DFX_OP_REQUIRES(
        ctx, r.max_y > r.min_y,
        absl::InvalidArgumentError("max_y must be larger than min_y."));
    const float smallest_min = std::min(r.min_x, r.min_y);
    const float largest_max = std::max(r.max_x, r.max_y);
    const float biggest =
        std::max(std::fabs(smallest_min), std::fabs(largest_max));
    const float z_max = biggest * static_cast<float>(1 << 14);
    const float z_min = -z_max;
    DFX_OP_REQUIRES_OK(ctx, planned);
    const int64_t nx = x.NumElements();
    const int64_t ny = y.NumElements();
    if (plan.kind == BinaryPlan::kRepeat) {
      DFX_OP_REQUIRES(
          ctx, std::min(nx, ny) > 0,
          absl::InvalidArgumentError("Must have some elements to add"));
    }
    const quint8* xd = x.data<quint8>();
    const quint8* yd = y.data<quint8>();
    qint32* out = z->data<qint32>();
    std::fill(out, out + z->NumElements(), qint32{0});
    // An operand's level in the output range: exactly for a scalar
    // operand, else by its levels 0 and 1 (clamped to int32).
    struct Mover {
      int64_t zero, step;
      bool exact;
      float lo, hi, zlo, zhi;
      int32_t operator()(int64_t v) const {
        if (exact) {
          return quantized::RequantizeLevel<quint8, qint32>(v, lo, hi, zlo, zhi)
              .value;
        }
        int64_t m = zero + v * step;
        m = std::max<int64_t>(m, std::numeric_limits<int32_t>::min());
        m = std::min<int64_t>(m, std::numeric_limits<int32_t>::max());
        return static_cast<int32_t>(m);
      }
    };
    auto mover = [&](float lo, float hi, bool exact) {
      const int64_t l0 = quantized::FloatToLevelUnclamped<qint32>(
          LevelToFloat<quint8>(0, lo, hi), z_min, z_max);
      const int64_t l1 = quantized::FloatToLevelUnclamped<qint32>(
          LevelToFloat<quint8>(1, lo, hi), z_min, z_max);
      return Mover{l0,    static_cast<int64_t>(quantized::Wrap32(l1 - l0)),
                   exact, lo,
                   hi,    z_min,
                   z_max};
    };
    const Mover mx = mover(r.min_x, r.max_x, plan.kind == BinaryPlan::kScalarX);
    const Mover my = mover(r.min_y, r.max_y, plan.kind == BinaryPlan::kScalarY);
    ForEachPair(plan, nx, ny, [&](int64_t i, int64_t ix, int64_t iy) {
      out[i] = qint32{quantized::Wrap32(static_cast<int64_t>(mx(xd[ix].value)) +
                                        my(yd[iy].value))};
    });
    SetRange(ctx, 1, z_min, z_max);
  }
};

// QuantizedMul (quint8 * quint8 -> qint32): products of levels less the
// level of zero; the range is the product range.
class QuantizedMulOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BinaryRanges r;
    DFX_OP_REQUIRES_OK(ctx, ReadBinaryRanges(ctx, /*add=*/false, &r));
    BinaryPlan plan;
    TensorShape out_shape;
    const absl::Status planned = PlanBinary(x, y, &plan, &out_shape);
    if (!planned.ok() && planned.code() == absl::StatusCode::kInvalidArgument) {
      ctx->SetStatus(planned);
      return;
    }
    Tensor* z = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &z));
    DFX_OP_REQUIRES(
        ctx, r.max_x > r.min_x,
        absl::InvalidArgumentError("max_x must be larger than min_a."));
    DFX_OP_REQUIRES(
        ctx, r.max_y > r.min_y,
        absl::InvalidArgumentError("max_x must be larger than min_b."));
    const int64_t offset_x = quantized::Wrap32(
        quantized::FloatToLevelUnclamped<quint8>(0.0f, r.min_x, r.max_x));
    const int64_t offset_y = quantized::Wrap32(
        quantized::FloatToLevelUnclamped<quint8>(0.0f, r.min_y, r.max_y));
    DFX_OP_REQUIRES_OK(ctx, planned);
    const int64_t nx = x.NumElements();
    const int64_t ny = y.NumElements();
    if (plan.kind == BinaryPlan::kRepeat) {
      DFX_OP_REQUIRES(
          ctx, std::min(nx, ny) > 0,
          absl::InvalidArgumentError("vector must have at least 1 element"));
    }
    const quint8* xd = x.data<quint8>();
    const quint8* yd = y.data<quint8>();
    qint32* out = z->data<qint32>();
    std::fill(out, out + z->NumElements(), qint32{0});
    ForEachPair(plan, nx, ny, [&](int64_t i, int64_t ix, int64_t iy) {
      out[i] = qint32{quantized::Wrap32((xd[ix].value - offset_x) *
                                        (yd[iy].value - offset_y))};
    });
    float z_min, z_max;
    quantized::ProductRange<quint8, quint8, qint32>(r.min_x, r.max_x, r.min_y,
                                                    r.max_y, &z_min, &z_max);
    SetRange(ctx, 1, z_min, z_max);
  }
};

// QuantizedConcat: every input requantized (in float) into the range that
// covers them all (symmetric around zero for qint32), or copied when its
// range is that range already.
template <typename T>
class QuantizedConcatOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = (ctx->num_inputs() - 1) / 3;
    const Tensor& dim_t = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, dim_t.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Concat dim tensor should be a scalar integer, but got shape ",
            dim_t.shape().DebugString())));
    const int64_t axis = dim_t.data<int32_t>()[0];
    const Tensor& first = ctx->input(1);
    const int rank = first.dims();
    DFX_OP_REQUIRES(
        ctx, axis >= 0 && axis < rank,
        absl::InvalidArgumentError(absl::StrCat(
            "ConcatOp : Expected concatenating dimensions in the range [0, ",
            rank, "), but got ", axis)));
    float out_min = std::numeric_limits<float>::max();
    float out_max = std::numeric_limits<float>::lowest();
    std::vector<std::pair<float, float>> ranges;
    for (int i = 0; i < n; ++i) {
      const Tensor& lo = ctx->input(1 + n + i);
      const Tensor& hi = ctx->input(1 + 2 * n + i);
      DFX_OP_REQUIRES(
          ctx, lo.NumElements() > 0 && hi.NumElements() > 0,
          absl::InvalidArgumentError(absl::StrCat(
              "QuantizedConcat: input ", i, "'s range must not be empty")));
      ranges.emplace_back(Scalar(lo), Scalar(hi));
      out_min = std::min(out_min, ranges.back().first);
      out_max = std::max(out_max, ranges.back().second);
    }
    if (quantized::Levels<T>::kLowest < 0) {
      // A signed type gets a range symmetric around zero.
      const float largest = std::max(std::fabs(out_min), std::fabs(out_max));
      out_min = -largest;
      out_max = largest;
    }
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    int64_t concat_size = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(1 + i);
      DFX_OP_REQUIRES(
          ctx, in.dims() == rank,
          absl::InvalidArgumentError(absl::StrCat(
              "ConcatOp : Ranks of all input tensors should match: shape[0] "
              "= ",
              first.shape().DebugString(), " vs. shape[", i,
              "] = ", in.shape().DebugString())));
      for (int d = 0; d < rank; ++d) {
        if (d == axis) continue;
        DFX_OP_REQUIRES(
            ctx, in.dim_size(d) == first.dim_size(d),
            absl::InvalidArgumentError(absl::StrCat(
                "ConcatOp : Dimensions of inputs should match: shape[0] = ",
                first.shape().DebugString(), " vs. shape[", i,
                "] = ", in.shape().DebugString())));
      }
      concat_size += in.dim_size(static_cast<int>(axis));
    }
    std::vector<int64_t> dims(first.shape().dim_sizes().begin(),
                              first.shape().dim_sizes().end());
    dims[axis] = concat_size;
    absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    T* out = output->data<T>();
    const int64_t out_row = outer == 0 ? 0 : output->NumElements() / outer;
    int64_t col = 0;
    // TensorFlow skips empty inputs and then reads the ranges by the
    // position among the others: the k-th non-empty input is requantized
    // from input k's range.
    int k = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(1 + i);
      if (in.NumElements() == 0) continue;
      const std::pair<float, float>& range = ranges[k++];
      const int64_t row = in.NumElements() / outer;
      const T* src = in.data<T>();
      const bool same = range.first == out_min && range.second == out_max;
      for (int64_t o = 0; o < outer; ++o) {
        T* dst = out + o * out_row + col;
        if (same) {
          std::copy(src + o * row, src + (o + 1) * row, dst);
        } else {
          quantized::RequantizeTensor<T, T>(src + o * row, row, range.first,
                                            range.second, out_min, out_max,
                                            dst);
        }
      }
      col += row;
    }
    SetRange(ctx, 1, out_min, out_max);
  }
};

// QuantizedReshape: Reshape, with the range passed through.
class QuantizedReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, sizes.dims() <= 1,
        absl::InvalidArgumentError(absl::StrCat("sizes input must be 1-D, not ",
                                                sizes.shape().DebugString())));
    std::vector<int64_t> dims(sizes.NumElements());
    for (int64_t i = 0; i < sizes.NumElements(); ++i) {
      dims[i] = sizes.dtype() == DT_INT32 ? sizes.data<int32_t>()[i]
                                          : sizes.data<int64_t>()[i];
    }
    int unknown = -1;
    int64_t product = 1;
    for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
      if (dims[i] == -1) {
        DFX_OP_REQUIRES(ctx, unknown < 0,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Only one input size may be -1, not both ", unknown,
                            " and ", i)));
        unknown = i;
        continue;
      }
      DFX_OP_REQUIRES(ctx, dims[i] >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Size ", i, " must be non-negative, not ", dims[i])));
      product = (dims[i] != 0 && product > TensorShape::kMaxElements / dims[i])
                    ? TensorShape::kMaxElements + 1
                    : product * dims[i];
    }
    const int64_t n = input.NumElements();
    const std::string requested =
        absl::StrCat("[", absl::StrJoin(dims, ","), "]");
    if (unknown >= 0) {
      DFX_OP_REQUIRES(
          ctx, product > 0,
          absl::InvalidArgumentError(absl::StrCat(
              "Reshape cannot infer the missing input size for an empty "
              "tensor unless all specified input sizes are non-zero")));
      DFX_OP_REQUIRES(
          ctx, n % product == 0,
          absl::InvalidArgumentError(absl::StrCat(
              "Input to reshape is a tensor with ", n,
              " values, but the requested shape requires a multiple of ",
              product)));
      dims[unknown] = n / product;
    } else {
      DFX_OP_REQUIRES(ctx, n == product,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input to reshape is a tensor with ", n,
                          " values, but the requested shape has ", product)));
    }
    DFX_OP_REQUIRES(ctx, ctx->input(2).NumElements() == 1,
                    absl::InvalidArgumentError("input_min must be a scalar."));
    DFX_OP_REQUIRES(ctx, ctx->input(3).NumElements() == 1,
                    absl::InvalidArgumentError("input_max must be a scalar."));
    absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    absl::StatusOr<Tensor> out = input.Reshaped(*shape);
    DFX_OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, *std::move(out));
    SetRange(ctx, 1, Scalar(ctx->input(2)), Scalar(ctx->input(3)));
  }
};

// QuantizedBatchNormWithGlobalNormalization (quint8 -> qint32): TensorFlow's
// fixed-point form. Per channel, scale and offset are computed in float and
// stored as levels of the output range [-2^20, 2^20]; each input level is
// moved into that range and scaled as levels, products and sums wrapping in
// 32 bits as Eigen's qint32 arithmetic does. The vectors are read by flat
// index modulo their length, as TensorFlow reads them.
class QuantizedBatchNormOp : public OpKernel {
 public:
  explicit QuantizedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("variance_epsilon", &epsilon_));
    ctx->SetStatus(ctx->GetAttr("scale_after_normalization", &scale_after_));
  }

  void Compute(OpKernelContext* ctx) override {
    for (int i = 1; i < 15; ++i) {
      if (i % 3 == 0) continue;
      DFX_OP_REQUIRES(ctx, ctx->input(i).NumElements() > 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "range input ", i, " must not be empty")));
    }
    const Tensor& input = ctx->input(0);
    static constexpr const char* kNames[] = {"input", "mean", "var", "beta",
                                             "gamma"};
    DFX_OP_REQUIRES(
        ctx, input.dims() == 4,
        absl::InvalidArgumentError(absl::StrCat("input must be 4-dimensional",
                                                input.shape().DebugString())));
    for (int k = 1; k < 5; ++k) {
      const Tensor& v = ctx->input(3 * k);
      DFX_OP_REQUIRES(
          ctx, v.dims() == 1,
          absl::InvalidArgumentError(absl::StrCat(
              kNames[k], " must be 1-dimensional", v.shape().DebugString())));
    }
    const int64_t depth = ctx->input(3).dim_size(0);
    // TensorFlow divides by the depth and reads the other vectors at every
    // channel of the mean, past their end when they are shorter.
    DFX_OP_REQUIRES(ctx, depth > 0 && input.NumElements() % depth == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "mean's length ", depth, " must divide the input's ",
                        input.NumElements(), " elements")));
    for (int k = 2; k < 5; ++k) {
      DFX_OP_REQUIRES(
          ctx, ctx->input(3 * k).dim_size(0) == depth,
          absl::InvalidArgumentError(absl::StrCat(
              kNames[k], " must have as many elements as mean (", depth, ")")));
    }
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const float out_min = -static_cast<float>(1 << 20);
    const float out_max = static_cast<float>(1 << 20);
    auto level = [&](int k, int64_t i) {
      return LevelToFloat<quint8>(ctx->input(3 * k).data<quint8>()[i].value,
                                  Scalar(ctx->input(3 * k + 1)),
                                  Scalar(ctx->input(3 * k + 2)));
    };
    std::vector<int64_t> scale(depth), offset(depth);
    for (int64_t c = 0; c < depth; ++c) {
      const float mean = level(1, c);
      const float var = level(2, c);
      const float beta = level(3, c);
      const float gamma = level(4, c);
      float s = 1.0f / std::sqrt(var + epsilon_);
      if (scale_after_) s = s * gamma;
      const float o = (-mean * s) + beta;
      scale[c] = FloatToLevel<qint32>(s, out_min, out_max).value;
      offset[c] = FloatToLevel<qint32>(o, out_min, out_max).value;
    }
    const int64_t one = FloatToLevel<qint32>(1.0f, out_min, out_max).value;
    const float in_min = Scalar(ctx->input(1));
    const float in_max = Scalar(ctx->input(2));
    const quint8* in = input.data<quint8>();
    qint32* out = output->data<qint32>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      const int64_t c = i % depth;
      const int64_t v = quantized::RequantizeLevel<quint8, qint32>(
                            in[i].value, in_min, in_max, out_min, out_max)
                            .value;
      const int32_t product = quantized::Wrap32(v * scale[c]);
      // int32 division; INT32_MIN / -1 cannot happen (one is positive).
      const int32_t quotient = static_cast<int32_t>(product / one);
      out[i] =
          qint32{quantized::Wrap32(static_cast<int64_t>(quotient) + offset[c])};
    }
    SetRange(ctx, 1, out_min, out_max);
  }

 private:
  float epsilon_ = 0;
  bool scale_after_ = false;
};

template <typename In, typename Out>
void RegisterRequantize(KernelRegistry* registry) {
  RegisterKernel<RequantizeOp<In, Out>>(
      registry, KernelDefBuilder("Requantize")
                    .template TypeConstraint<In>("Tinput")
                    .template TypeConstraint<Out>("out_type"));
}

template <typename T>
void RegisterRelu(KernelRegistry* registry) {
  registry->Register(
      KernelDefBuilder("QuantizedRelu")
          .template TypeConstraint<T>("Tinput")
          .template TypeConstraint<T>("out_type"),
      [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
        return std::make_unique<QuantizedReluOp<T>>(ctx, -1.0f);
      });
  registry->Register(
      KernelDefBuilder("QuantizedRelu6")
          .template TypeConstraint<T>("Tinput")
          .template TypeConstraint<T>("out_type"),
      [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
        return std::make_unique<QuantizedReluOp<T>>(ctx, 6.0f);
      });
}

template <typename T>
void RegisterBiasAdd(KernelRegistry* registry) {
  RegisterKernel<QuantizedBiasAddOp<T>>(
      registry, KernelDefBuilder("QuantizedBiasAdd")
                    .template TypeConstraint<T>("T1")
                    .template TypeConstraint<T>("T2")
                    .template TypeConstraint<qint32>("out_type"));
}

}  // namespace

void RegisterQuantizedKernels(KernelRegistry* registry) {
  RegisterRequantize<qint32, quint8>(registry);
  RegisterRequantize<qint32, qint8>(registry);
  RegisterKernel<RequantizationRangeOp<qint32>>(
      registry,
      KernelDefBuilder("RequantizationRange").TypeConstraint<qint32>("Tinput"));
  RegisterKernel<QuantizeDownAndShrinkRangeOp<qint32, quint8>>(
      registry, KernelDefBuilder("QuantizeDownAndShrinkRange")
                    .TypeConstraint<qint32>("Tinput")
                    .TypeConstraint<quint8>("out_type"));
  RegisterRelu<quint8>(registry);
  RegisterRelu<qint32>(registry);
  RegisterBiasAdd<quint8>(registry);
  RegisterBiasAdd<qint8>(registry);
  for (const char* name : {"QuantizedAdd", "QuantizedMul"}) {
    KernelDefBuilder b(name);
    b.TypeConstraint<quint8>("T1")
        .TypeConstraint<quint8>("T2")
        .TypeConstraint<qint32>("Toutput");
    if (std::string(name) == "QuantizedAdd") {
      RegisterKernel<QuantizedAddOp>(registry, b);
    } else {
      RegisterKernel<QuantizedMulOp>(registry, b);
    }
  }
  RegisterKernel<QuantizedConcatOp<quint8>>(registry,
                                            KernelDefBuilder("QuantizedConcat")
                                                .TypeConstraint<quint8>("T")
                                                .HostMemory("concat_dim"));
  RegisterKernel<QuantizedConcatOp<qint32>>(registry,
                                            KernelDefBuilder("QuantizedConcat")
                                                .TypeConstraint<qint32>("T")
                                                .HostMemory("concat_dim"));
  for (DataType t : {DT_QUINT8, DT_QINT32}) {
    RegisterKernel<QuantizedReshapeOp>(
        registry,
        KernelDefBuilder("QuantizedReshape").TypeConstraint("T", {t}));
  }
  RegisterKernel<QuantizedBatchNormOp>(
      registry, KernelDefBuilder("QuantizedBatchNormWithGlobalNormalization")
                    .TypeConstraint<quint8>("Tinput")
                    .TypeConstraint<qint32>("out_type"));
  quantized::RegisterQuantizedConvKernels(registry);
}

}  // namespace dfx
